main agent A {
    main func(input) {
        x = "ends with a backslash \