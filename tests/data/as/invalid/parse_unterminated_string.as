import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        use "never closed
    }
}
