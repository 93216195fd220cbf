import llm M from "openai://gpt-4o"
import agent Editor from "./main.as"

agent Critic {
    model M
    role "Critic"
    description "Finds problems."

    main func(draft) {
        Editor.polish(draft)
    }
}
