import llm M from "openai://gpt-4.1-mini"

main agent Helper {
    model M
    role "Helpful Assistant"
    description "Answer briefly."

    main func(input) {
        generate({ input: "Say hello." })
    }
}
