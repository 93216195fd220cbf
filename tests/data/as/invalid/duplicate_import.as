import llm M from "openai://a"
import tool M from "file://x"

main agent A {
    main func(input) {
    }
}
