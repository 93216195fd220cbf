import llm M from "openai://gpt-4o"

agent Critic {
    model M
    role "Critic"
    description "Finds problems."

    main func(draft) {
        use draft as draft
        generate({ input: "List the problems." }) -> {
            problems list[string]
        }
    }
}
