import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input { q string, q number }) {
        generate({ input: "a" }) -> {
            ok boolean
            ok string
        }
    }
}
