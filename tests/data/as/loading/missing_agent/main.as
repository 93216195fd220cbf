import agent Middle from "lib/middle.as"

main agent Desk {
    main func(input) {
        Middle(input)
    }
}
