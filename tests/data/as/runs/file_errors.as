import llm M from "openai://gpt-4o"
import tool File from "file://."

main agent Reader {
    model M
    role "Reader"
    description "Reads."

    main func(input) {
        if input.list {
            return File.list({ path: input.path })
        }
        use File.read({ path: input.path }) as doc
        generate({ input: "Summarise." })
    }
}
