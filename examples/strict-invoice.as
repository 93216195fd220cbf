import llm Model from "openai://gpt-4o-mini"

main agent Extractor {
    model Model
    role "Invoice Extractor"
    description "Copy fields from the invoice text exactly; never guess."

    main func(input) {
        use input.invoice max 2k as invoice
        generate({ input: "Extract the invoice fields.", strict: true, attempts: 3 }) -> {
            number string
            total number
            paid boolean
            lines list[string]
        }
    }
}
