import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Limiter"
    description "Floor the limits."

    main func(input) {
        use input.text max 0.0004k as unclipped
        generate({ input: "Go.", max_output: 0.0001k })
        generate({ input: "Again.", max_output: 2.9 })
    }
}
