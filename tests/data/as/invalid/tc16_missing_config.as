import llm M from "openai://gpt-4o"

main agent A {
    model M
    main func(input) {
        generate({ input: "Z" })
    }
}
