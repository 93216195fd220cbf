import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        generate({ attempts: 2 })
        generate({  })
    }
}
