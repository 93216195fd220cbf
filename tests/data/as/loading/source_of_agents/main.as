import llm M from "openai://gpt-4o"
import agent Critic from "./lib/agents.as"

main agent Editor {
    model M
    role "Editor"
    description "Edits."

    main func(input) {
        Critic.review(input.draft)
    }
}
