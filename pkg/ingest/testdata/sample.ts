import { a, b } from "./a";
import type { T } from './t';

// A template literal with nested braces and a nested template.
const tpl = `outer ${ { a: `inner ${ {b: 1}.b } }` }.a } tail } {`;

const re = /[{}]+\/}/g;
const ratio = a / b / 2;

export function f(x: number): string {
  const obj = { k: "}" };
  return `${x}${obj.k}`;
}

@Component({
  selector: "app",
})
export class AppComponent {
  title = 'app }';
  constructor(private readonly s: Service) {}

  get value(): number { return 1 }
}

export default {
  name: "x",
}
