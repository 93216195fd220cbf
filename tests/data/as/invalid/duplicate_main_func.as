main agent A {
    main func first(input) {
    }
    main func second(input) {
    }
}
