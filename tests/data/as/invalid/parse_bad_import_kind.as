import model M from "openai://gpt-4o"
