import llm Model from "openai://gpt-4o-mini"
main agent A {
    model Model
    role "Classifier"
    description "Say whether a message is fine."
    main func(input) {
        use input.text as message
        generate({ input: "Is this message fine?" }) -> {
            ok boolean
        }
    }
}
