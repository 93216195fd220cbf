import llm Model from "openai://gpt-4.1-mini"
import tool File from "file://."

main agent Summariser {
    model Model
    role "Technical Writer"
    description "Summarise one file of the workspace for a busy teammate."

    main func(input) {
        content = File.read({ path: "†input.path" })
        use input.path as file
        use content max 1k as file content
        summary = generate({ input: "Summarise the file: a title, two sentences, the key points." }) -> {
            title string
            summary string
            key_points list[string]
        }
        summary
    }
}
