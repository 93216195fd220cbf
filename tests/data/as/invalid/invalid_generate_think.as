import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        generate({ input: "a", think: "max" })
        generate({ input: "a", think: 1 })
        generate({ input: "a", think: "high" })
    }
}
