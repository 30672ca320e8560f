a = 1
b = a + undefined_name
