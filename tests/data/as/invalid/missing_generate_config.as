import llm M from "openai://gpt-4o"

main agent A {
    main func(input) {
        if input.ok {
            model M
            role "Inner"
        }
        description "Late"
        generate({ input: "a" })
    }
}
