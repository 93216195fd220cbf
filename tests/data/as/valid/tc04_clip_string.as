import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Summarizer"
    description "Summarize text."

    main func(input) {
        use input.text max 10 as excerpt
        use input.text max 1k as full
        use input.text max 0.005k as tiny
        generate({ input: "Summarize." }) -> {
            summary string
        }
    }
}
