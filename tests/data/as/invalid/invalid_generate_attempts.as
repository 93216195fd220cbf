import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        generate({ input: "a", attempts: 0 })
        generate({ input: "a", attempts: 1.5 })
        generate({ input: "a", attempts: "3" })
        generate({ input: "a", attempts: 2k })
    }
}
