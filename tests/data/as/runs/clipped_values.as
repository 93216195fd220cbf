import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Clipper"
    description "Show what a budget keeps."

    main func(input) {
        use input.text max 5 as text
        use input.items max 20 as items
        use input.meta max 25 as meta
        use input.items max 3 as no items
        use input.text max 1k as whole
        use input.items as unbudgeted
        generate({ input: "Go." })
    }
}
