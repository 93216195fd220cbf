import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Counter"
    description "Count budgets."

    main func(input) {
        use input.text max 3K as upper k
        use input.text max 4kb as kb
        use input.text max 5tokens as tokens
        use input.text max 0.002mb as floored
        generate({ input: "Go.", max_output: 7K })
    }
}
