import llm M from "openai://gpt-4o"
import agent Critic from "./critic.as"

main agent Editor {
    model M
    role "Editor"
    description "Edits."

    main func(input) {
        Critic(input)
    }

    func polish(text) {
        text
    }
}
