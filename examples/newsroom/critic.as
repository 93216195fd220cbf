import llm Model from "openai://gpt-4.1-mini"
import file Style from "./style-guide.md"

agent Critic {
    model Model
    role "Fact-checking Critic"
    description "Check a draft against the reporter's notes and the house style."

    main func(input) {
        use input.notes as reporter notes
        use input.draft as draft
        use Style max 400 as house style
        generate({ input: "List every claim the notes do not support and every breach of the house style." }) -> {
            problems list[string]
            verdict string
        }
    }
}
