import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        generate({ input: "a", temperature: "hot" })
        generate({ input: "a", temperature: input.t })
    }
}
