import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        generate({ input: "a", max_output: 0 })
        generate({ input: "a", max_output: 0.0k })
    }
}
