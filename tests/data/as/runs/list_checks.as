import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Checker"
    description "Check lists."

    main func(input) {
        generate({ input: "Lists.", attempts: 2 }) -> {
            nums list[number]
            grid list[list[number]]
            flags list[boolean]
        }
    }
}
