import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Poet"
    description "Line one of description.\nLine two."

    main func(input) {
        use "first\nsecond" as multi line
        generate({ input: "Write\ta poem.\nKeep it short." })
    }
}
