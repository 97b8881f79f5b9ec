<?php
declare(strict_types=1);

namespace App\Demo;

use App\Base;

# a hash comment with a brace {
function greet(string $name): string {
    $s = "Hello {$name["first"]} }";
    $t = 'single } quote';
    $doc = <<<EOT
    heredoc with } and {$name}
    EOT;
    return $s . $t . $doc;
}

#[Attribute]
class Greeter extends Base {
    public function hi(): string { return greet(['first' => '}']); }
}
?>
<p>Some HTML { with a brace</p>
<?php echo greet(['first' => 'x']); ?>
