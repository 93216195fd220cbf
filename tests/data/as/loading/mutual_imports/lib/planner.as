import llm M from "openai://gpt-4o"
import agent Writer from "./writer.as"

agent Planner {
    model M
    role "Planner"
    description "Plans."

    main func(topic) {
        Writer(topic)
    }

    func outline(topic) {
        use topic as topic
        generate({ input: "Outline it." })
    }
}
