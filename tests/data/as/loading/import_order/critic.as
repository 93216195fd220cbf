import llm M from "openai://gpt-4o-mini"

agent Critic {
    model M
    role "Critic"
    description "Finds problems."

    main func(draft) {
        generate({ input: draft })
    }
}
