import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Formatter"
    description "Show sources."

    main func(input) {
        items = [10, 20, 30]
        use items[1]
        use "literal \"quoted\"\ttab"
        use 2.50
        use input.a == input.b
        use not input.flag
        use { k: items.length, list: [1, none, true] }
        use none
        use 3 < 4
        generate({ input: "Show." })
    }
}
