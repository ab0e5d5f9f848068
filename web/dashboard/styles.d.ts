// Stylesheets the dashboard's entry imports for their side effect: Bun's bundler writes them to
// app.css; tsc only needs to know the import is not a mistake.
declare module "*.css";
