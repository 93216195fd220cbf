import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Cutter"
    description "Cut a character in two."

    main func(input) {
        use input.text max 3 as cut
        generate({ input: "Go." })
    }
}
