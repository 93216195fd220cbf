agent A {
    main func(input) {
    }
}

main agent A {
    main func(input) {
    }
}
