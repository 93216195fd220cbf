import tool T from "file://x"

main agent A {
    model T
    main func(input) {
        model input
    }
}
