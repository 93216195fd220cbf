import llm M from "openai://gpt-4o"
import agent Critic from "deep/critic.as"
import file Notes from "./notes.md"

agent Middle {
    model M
    role "Middle"
    description "Passes on."

    main func(draft) {
        Critic(draft)
    }
}
