import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Checker"
    description "Check lists strictly."

    main func(input) {
        generate({ input: "Lists.", attempts: 2, strict: true }) -> {
            nums list[number]
        }
    }
}
