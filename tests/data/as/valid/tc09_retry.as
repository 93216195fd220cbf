import llm M from "openai://gpt-4o-mini"

main agent A {
    model M
    role "Classifier"
    description "Classify."

    main func(input) {
        use input.text as text
        generate({ input: "Classify the text.", attempts: 3 }) -> {
            label string
            confidence number
        }
    }
}
