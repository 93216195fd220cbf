import agent Critic from "./critic.as"
import llm M from "openai://gpt-4o"

main agent Editor {
    model M
    role "Editor"
    description "Edits."

    main func(input) {
        Critic(input)
    }
}
