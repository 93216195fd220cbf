import llm Model from "openai://gpt-4.1-mini"

main agent Researcher {
    model Model
    role "Careful Researcher"
    description "Answer only from the evidence given; say when it is not enough."

    main func(input) {
        use input.question as question
        use input.evidence max 300 as evidence
        use input.notes max 40 as analyst notes
        answer = generate({ input: "Answer the question from the evidence.", attempts: 2 }) -> {
            answer string
            confidence number
            sources list[string]
        }
        answer
    }
}
