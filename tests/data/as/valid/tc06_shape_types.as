import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Extractor"
    description "Extract structure."

    main func(input) {
        generate({ input: "Extract." }) -> {
            title string
            score number
            ok boolean
            meta json
            raw list
            tags list[string]
            rows list[json]
            grid list[list[number]]
        }
    }
}
