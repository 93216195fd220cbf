import llm M from "openai://gpt-4o"

main agent A {
    model M.x
    role input
    description 42
    main func(input) {
        role none
    }
}
