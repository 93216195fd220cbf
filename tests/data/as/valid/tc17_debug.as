import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Debugger"
    description "Debug."

    main func(input) {
        use input.x as x
        generate({ input: "Debug me.", debug: true }) -> {
            ok boolean
        }
    }
}
