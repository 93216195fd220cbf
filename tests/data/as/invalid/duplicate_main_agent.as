main agent A {
    main func(input) {
    }
}

main agent B {
    main func(input) {
    }
}
