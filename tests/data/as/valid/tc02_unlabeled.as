import llm M from "anthropic://claude-sonnet-4-0"

main agent A {
    model M
    role "Analyst"
    description "Analyze inputs."

    main func(input) {
        use input.question
        use input.meta
        generate({ input: "Analyze." }) -> {
            verdict string
        }
    }
}
