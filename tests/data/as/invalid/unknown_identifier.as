import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        if input.ok {
            inner = 1
        }
        x = inner
        y = [missing, input]
    }
}
