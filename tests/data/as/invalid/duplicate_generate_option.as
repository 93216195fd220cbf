import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        generate({ input: "a", input: "b", attempts: 1, attempts: 2 })
    }
}
