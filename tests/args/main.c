/* The program around t_global_args.c built as a shared library. */
int global_args_main(void);
int main(void) { return global_args_main(); }
