// two agents, neither main
agent A {
    main func(input) {
    }
}

agent B {
    main func(input) {
    }
}
