import llm M from "openai://gpt-4o"
import agent Planner from "./planner.as"

agent Writer {
    model M
    role "Writer"
    description "Writes."

    main func(topic) {
        Planner.outline(topic)
    }
}
