main agent {
    main func(input) {
        { greeting: "hello", to: input.name }
    }
}
