import agent Middle from "lib/middle.as"

main agent Editor {
    model M
    role "Editor"
    description "Edits."

    main func(input) {
        use Notes as notes
        first = Middle(input.draft)
        second = Critic(input.draft)
        generate({ input: [first, second] })
    }
}
