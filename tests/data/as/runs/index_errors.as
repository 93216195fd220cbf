import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Indexer"
    description "Index lists."

    main func(input) {
        use input.items[5] as sixth
        x = input.items[input.at]
        generate({ input: x })
    }
}
