import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Strict"
    description "Be strict."

    main func(input) {
        generate({ input: "Answer.", strict: true, attempts: 2 }) -> {
            ok boolean
            count number
        }
    }
}
