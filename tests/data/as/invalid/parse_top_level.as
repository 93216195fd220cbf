import llm M from "openai://gpt-4o"
func f() {
}
