import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Writer"
    description "Write."

    main func(input) {
        generate({ input: { task: "write", audience: input.who, tags: ["a", "b"] } }) -> {
            text string
        }
    }
}
